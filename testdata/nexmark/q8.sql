-- q8: Monitor New Users. People who opened an auction in the 10-second
-- tumbling window in which they registered: a window join of two
-- windowed streams. A window is in the result once both inputs'
-- watermarks have closed it.
-- streams: auction, person
-- streaming:
SELECT p.id, p.name, p.window_start
FROM (SELECT id, name, window_start, window_end
      FROM TUMBLE(person, date_time, INTERVAL '10 seconds')
      GROUP BY id, name, window_start, window_end) p
JOIN (SELECT seller, window_start, window_end
      FROM TUMBLE(auction, date_time, INTERVAL '10 seconds')
      GROUP BY seller, window_start, window_end) a
  ON p.id = a.seller AND p.window_start = a.window_start AND p.window_end = a.window_end
-- batch:
SELECT p.id, p.name, p.window_start
FROM (SELECT DISTINCT id, name, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') AS window_start FROM person) p
JOIN (SELECT DISTINCT seller, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') AS window_start FROM auction) a
  ON p.id = a.seller AND p.window_start = a.window_start
WHERE p.window_start + INTERVAL '10 seconds' <= least((SELECT max(date_time) FROM person), (SELECT max(date_time) FROM auction)) - INTERVAL '2 seconds'
