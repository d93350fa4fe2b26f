-- q13: Bounded Side Input Join. Every bid joined with a static table
-- (side_input: key 0..9999 and a text value) on auction % 10000: a
-- stream-static join.
-- streams: bid
-- streaming:
SELECT b.auction, b.bidder, b.price, b.date_time, s.value
FROM STREAM bid b JOIN side_input s ON b.auction % 10000 = s.key
-- batch:
SELECT b.auction, b.bidder, b.price, b.date_time, s.value
FROM bid b JOIN side_input s ON b.auction % 10000 = s.key
