-- q3: Local Item Suggestion. Sellers in Oregon, Idaho or California and
-- their auctions in category 10: a join of two streams without a time
-- bound (its state on both sides grows without end).
-- streams: auction, person
-- streaming:
SELECT p.name, p.city, p.state, a.id
FROM STREAM auction a JOIN STREAM person p ON a.seller = p.id
WHERE a.category = 10 AND p.state IN ('OR', 'ID', 'CA')
-- batch:
SELECT p.name, p.city, p.state, a.id
FROM auction a JOIN person p ON a.seller = p.id
WHERE a.category = 10 AND p.state IN ('OR', 'ID', 'CA')
