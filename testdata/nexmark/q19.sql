-- q19: Auction TOP-10 Price. The ten highest bids of each auction (among
-- equal prices the earliest, then the lowest bidder): Top-N per key.
-- streams: bid
-- streaming:
SELECT auction, bidder, price, channel, url, date_time, extra, rn
FROM (SELECT auction, bidder, price, channel, url, date_time, extra,
             row_number() OVER (PARTITION BY auction ORDER BY price DESC, date_time, bidder) AS rn
      FROM STREAM bid) t
WHERE rn <= 10
-- batch:
SELECT auction, bidder, price, channel, url, date_time, extra, rn
FROM (SELECT auction, bidder, price, channel, url, date_time, extra,
             row_number() OVER (PARTITION BY auction ORDER BY price DESC, date_time, bidder) AS rn
      FROM bid) t
WHERE rn <= 10
