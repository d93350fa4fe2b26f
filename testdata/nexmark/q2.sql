-- q2: Selection. The bids on a few auctions (every 123rd id).
-- streams: bid
-- streaming:
SELECT auction, price FROM STREAM bid WHERE auction % 123 = 0
-- batch:
SELECT auction, price FROM bid WHERE auction % 123 = 0
