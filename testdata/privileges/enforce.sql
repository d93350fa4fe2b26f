-- as weir
SELECT 1;
