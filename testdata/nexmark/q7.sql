-- q7: Highest Bid. The bids carrying the highest price of their 10-second
-- tumbling window: a stream joined with its own windowed aggregate.
-- Windows are half-open [start, end), so a bid at exactly the end belongs
-- to the next window (Flink's text uses BETWEEN on both bounds).
-- streams: bid, bid
-- streaming:
SELECT b.auction, b.price, b.bidder, b.date_time, b.extra
FROM bid b
JOIN (SELECT max(price) AS maxprice, window_start, window_end
      FROM TUMBLE(bid, date_time, INTERVAL '10 seconds')
      GROUP BY window_start, window_end) m
  ON b.price = m.maxprice AND b.date_time >= m.window_start AND b.date_time < m.window_end
-- batch:
SELECT b.auction, b.price, b.bidder, b.date_time, b.extra
FROM bid b
JOIN (SELECT max(price) AS maxprice, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') AS window_start
      FROM bid GROUP BY 2) m
  ON b.price = m.maxprice AND b.date_time >= m.window_start AND b.date_time < m.window_start + INTERVAL '10 seconds'
WHERE m.window_start + INTERVAL '10 seconds' <= (SELECT max(date_time) - INTERVAL '2 seconds' FROM bid)
