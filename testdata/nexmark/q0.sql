-- q0: Pass Through. Every bid, unchanged: the cost of reading, storing and
-- writing the stream.
-- streams: bid
-- streaming:
SELECT auction, bidder, price, date_time, extra FROM STREAM bid
-- batch:
SELECT auction, bidder, price, date_time, extra FROM bid
