-- q9: Winning Bids. Each auction with its highest bid made while it was
-- open (earliest, then lowest bidder, among equal prices): Top-1 per key
-- with ROW_NUMBER over an interval join.
-- streams: auction, bid
-- streaming:
SELECT id, item_name, initial_bid, reserve, date_time, expires, seller, category, bidder, price, bid_date_time
FROM (SELECT a.id, a.item_name, a.initial_bid, a.reserve, a.date_time, a.expires, a.seller, a.category,
             b.bidder, b.price, b.date_time AS bid_date_time,
             row_number() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.date_time, b.bidder) AS rn
      FROM STREAM auction a JOIN STREAM bid b
        ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires) t
WHERE rn <= 1
-- batch:
SELECT id, item_name, initial_bid, reserve, date_time, expires, seller, category, bidder, price, bid_date_time
FROM (SELECT a.id, a.item_name, a.initial_bid, a.reserve, a.date_time, a.expires, a.seller, a.category,
             b.bidder, b.price, b.date_time AS bid_date_time,
             row_number() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.date_time, b.bidder) AS rn
      FROM auction a JOIN bid b
        ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires) t
WHERE rn <= 1
