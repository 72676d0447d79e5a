-- Demo organizations are public data read by every signed-in account, not memberships: the
-- viewer rows that sign-up and the demo seed used to add for every account are removed, so no
-- reader of the demo appears among its members. Owners and invited members stay.
DELETE FROM "Membership" m
USING "Organization" o
WHERE m."orgId" = o."id" AND o."demo" = true AND m."role" = 'viewer';
