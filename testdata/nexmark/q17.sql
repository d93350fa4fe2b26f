-- q17: Auction Statistics Report. Per auction and day: bids in three
-- price ranks and the price's min, max, avg and sum (state per auction).
-- streams: bid
-- streaming:
SELECT auction, to_char(date_time, 'YYYY-MM-DD') AS day, count(*) AS total_bids,
       count(*) FILTER (WHERE price < 10000) AS rank1_bids,
       count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
       count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
       min(price) AS min_price, max(price) AS max_price, avg(price) AS avg_price, sum(price) AS sum_price
FROM STREAM bid
GROUP BY auction, to_char(date_time, 'YYYY-MM-DD')
-- batch:
SELECT auction, to_char(date_time, 'YYYY-MM-DD') AS day, count(*) AS total_bids,
       count(*) FILTER (WHERE price < 10000) AS rank1_bids,
       count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
       count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
       min(price) AS min_price, max(price) AS max_price, avg(price) AS avg_price, sum(price) AS sum_price
FROM bid
GROUP BY auction, to_char(date_time, 'YYYY-MM-DD')
