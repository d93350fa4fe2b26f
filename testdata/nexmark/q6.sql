-- q6: Average Selling Price by Seller. Each auction's winning bid, and
-- per seller the average of it over that seller's auctions up to this one
-- (ROWS BETWEEN 10 PRECEDING AND CURRENT ROW, ordered by expiry): a
-- rolling OVER aggregate over an aggregate over an interval join.
-- streams: auction, bid
-- streaming:
SELECT seller, id, avg(final) OVER (PARTITION BY seller ORDER BY expires, id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg_final
FROM (SELECT a.id, a.seller, a.expires, max(b.price) AS final
      FROM STREAM auction a JOIN STREAM bid b
        ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
      GROUP BY a.id, a.seller, a.expires) q
-- batch:
SELECT seller, id, avg(final) OVER (PARTITION BY seller ORDER BY expires, id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg_final
FROM (SELECT a.id, a.seller, a.expires, max(b.price) AS final
      FROM auction a JOIN bid b
        ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires
      GROUP BY a.id, a.seller, a.expires) q
