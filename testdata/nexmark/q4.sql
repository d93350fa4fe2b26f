-- q4: Average Price for a Category. The winning (highest) bid of each
-- auction among the bids made while it was open, averaged per category:
-- an aggregation over an aggregation over an interval join.
-- streams: auction, bid
-- streaming:
SELECT q.category, avg(q.final) AS avg_final
FROM (SELECT a.id, a.category, max(b.price) AS final
      FROM STREAM auction a JOIN STREAM bid b
        ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
      GROUP BY a.id, a.category) q
GROUP BY q.category
-- batch:
SELECT q.category, avg(q.final) AS avg_final
FROM (SELECT a.id, a.category, max(b.price) AS final
      FROM auction a JOIN bid b
        ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
      GROUP BY a.id, a.category) q
GROUP BY q.category
