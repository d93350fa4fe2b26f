-- q11: User Sessions. Bids per bidder per session (a gap of 10 seconds
-- ends a session). The batch form sessionizes with lag() and a running
-- sum; a session counts once the final watermark (max(date_time) - 2 s)
-- has passed its end (last bid + 10 s).
-- streams: bid
-- streaming:
SELECT bidder, count(*) AS bid_count, window_start, window_end
FROM STREAM bid
GROUP BY bidder, session_window(date_time, '10 seconds')
-- batch:
SELECT bidder, count(*) AS bid_count, min(date_time) AS window_start, max(date_time) + INTERVAL '10 seconds' AS window_end
FROM (SELECT bidder, date_time, sum(brk) OVER (PARTITION BY bidder ORDER BY date_time ROWS UNBOUNDED PRECEDING) AS sid
      FROM (SELECT bidder, date_time,
                   CASE WHEN date_time - lag(date_time) OVER (PARTITION BY bidder ORDER BY date_time) < INTERVAL '10 seconds' THEN 0 ELSE 1 END AS brk
            FROM bid) b) s
GROUP BY bidder, sid
HAVING max(date_time) + INTERVAL '10 seconds' <= (SELECT max(date_time) - INTERVAL '2 seconds' FROM bid)
