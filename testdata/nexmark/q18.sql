-- q18: Find Last Bid. Each bidder's latest bid on each auction: Top-1 per
-- key with ROW_NUMBER ... ORDER BY date_time DESC (a dedup that keeps the
-- last row, retracting the one it replaces).
-- streams: bid
-- streaming:
SELECT auction, bidder, price, channel, url, date_time, extra
FROM (SELECT auction, bidder, price, channel, url, date_time, extra,
             row_number() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC, price DESC) AS rn
      FROM STREAM bid) t
WHERE rn <= 1
-- batch:
SELECT auction, bidder, price, channel, url, date_time, extra
FROM (SELECT auction, bidder, price, channel, url, date_time, extra,
             row_number() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC, price DESC) AS rn
      FROM bid) t
WHERE rn <= 1
