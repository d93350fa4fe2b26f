-- q20: Expand Bid with Auction. Every bid on an auction of category 10,
-- with the auction's columns: a join of two streams without a time bound.
-- streams: auction, bid
-- streaming:
SELECT b.auction, b.bidder, b.price, b.channel, b.url, b.date_time, b.extra,
       a.item_name, a.description, a.initial_bid, a.reserve, a.date_time AS auction_date_time,
       a.expires, a.seller, a.category, a.extra AS auction_extra
FROM STREAM bid b JOIN STREAM auction a ON b.auction = a.id
WHERE a.category = 10
-- batch:
SELECT b.auction, b.bidder, b.price, b.channel, b.url, b.date_time, b.extra,
       a.item_name, a.description, a.initial_bid, a.reserve, a.date_time AS auction_date_time,
       a.expires, a.seller, a.category, a.extra AS auction_extra
FROM bid b JOIN auction a ON b.auction = a.id
WHERE a.category = 10
