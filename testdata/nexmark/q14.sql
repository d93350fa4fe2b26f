-- q14: Calculation. Bids in a price band with the time of day classified
-- and the letters 'c' in the url counted (Flink counts them in extra with
-- a UDF; this generator leaves extra empty). The band is 10 000–500 000
-- euros instead of Flink's 1 000 000–50 000 000: this generator's prices
-- end at 1 000 000.
-- streams: bid
-- streaming:
SELECT auction, bidder, 0.908 * price AS price,
       CASE WHEN extract(hour FROM date_time) >= 8 AND extract(hour FROM date_time) <= 18 THEN 'dayTime'
            WHEN extract(hour FROM date_time) <= 6 OR extract(hour FROM date_time) >= 20 THEN 'nightTime'
            ELSE 'otherTime' END AS bid_time_type,
       date_time, extra, length(url) - length(replace(url, 'c', '')) AS c_counts
FROM STREAM bid
WHERE 0.908 * price > 10000 AND 0.908 * price < 500000
-- batch:
SELECT auction, bidder, 0.908 * price AS price,
       CASE WHEN extract(hour FROM date_time) >= 8 AND extract(hour FROM date_time) <= 18 THEN 'dayTime'
            WHEN extract(hour FROM date_time) <= 6 OR extract(hour FROM date_time) >= 20 THEN 'nightTime'
            ELSE 'otherTime' END AS bid_time_type,
       date_time, extra, length(url) - length(replace(url, 'c', '')) AS c_counts
FROM bid
WHERE 0.908 * price > 10000 AND 0.908 * price < 500000
