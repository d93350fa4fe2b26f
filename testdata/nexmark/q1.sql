-- q1: Currency Conversion. Each bid's price from dollars to euros.
-- streams: bid
-- streaming:
SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM STREAM bid
-- batch:
SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM bid
