-- q10: Log to File System. Every bid with its date and minute as text
-- (the partition columns of Flink's file sink; weir writes a table).
-- streams: bid
-- streaming:
SELECT auction, bidder, price, date_time, extra, to_char(date_time, 'YYYY-MM-DD') AS dt, to_char(date_time, 'HH24:MI') AS hm
FROM STREAM bid
-- batch:
SELECT auction, bidder, price, date_time, extra, to_char(date_time, 'YYYY-MM-DD') AS dt, to_char(date_time, 'HH24:MI') AS hm
FROM bid
