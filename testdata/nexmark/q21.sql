-- q21: Add Channel ID. Each bid on a known channel with the channel's id,
-- or the channel_id parameter of its url (Flink's REGEXP_EXTRACT, here
-- regexp_match(...)[2]). This generator's urls carry no channel_id, so
-- every row comes from the four known channels.
-- streams: bid
-- streaming:
SELECT auction, bidder, price, channel,
       CASE WHEN lower(channel) = 'apple' THEN '0'
            WHEN lower(channel) = 'google' THEN '1'
            WHEN lower(channel) = 'facebook' THEN '2'
            WHEN lower(channel) = 'baidu' THEN '3'
            ELSE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2] END AS channel_id
FROM STREAM bid
WHERE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2] IS NOT NULL
   OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')
-- batch:
SELECT auction, bidder, price, channel,
       CASE WHEN lower(channel) = 'apple' THEN '0'
            WHEN lower(channel) = 'google' THEN '1'
            WHEN lower(channel) = 'facebook' THEN '2'
            WHEN lower(channel) = 'baidu' THEN '3'
            ELSE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2] END AS channel_id
FROM bid
WHERE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2] IS NOT NULL
   OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')
