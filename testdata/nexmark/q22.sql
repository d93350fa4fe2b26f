-- q22: Get URL Directories. The first three directories of each bid's url
-- (Flink's 0-based SPLIT_INDEX(url, '/', 3) is split_part(url, '/', 4)).
-- streams: bid
-- streaming:
SELECT auction, bidder, price, channel,
       split_part(url, '/', 4) AS dir1, split_part(url, '/', 5) AS dir2, split_part(url, '/', 6) AS dir3
FROM STREAM bid
-- batch:
SELECT auction, bidder, price, channel,
       split_part(url, '/', 4) AS dir1, split_part(url, '/', 5) AS dir2, split_part(url, '/', 6) AS dir3
FROM bid
