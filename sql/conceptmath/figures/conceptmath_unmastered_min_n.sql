-- The fewest graded problems a concept needs to be called unmastered: below it an accuracy is
-- noise (1 of 2 right is 50% [9, 91]), and on a --limit sample the "lowest" concepts are ties
-- of concepts with 1 or 2 problems. 5 keeps every concept of the full data eligible (the
-- smallest has 6 problems) while a 5-problem accuracy is at least known to within about +-40
-- points.
CREATE OR REPLACE MACRO conceptmath_unmastered_min_n() AS 5;
