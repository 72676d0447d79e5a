-- A tenant's notification records keep the receiver's status class, never the exact status and
-- the size of its answer (together they fingerprint whatever answered). Rows written before that
-- rule are rewritten here; the install's own organization ('local') keeps its detail.
UPDATE "NotificationDelivery" AS d
SET "lastError" = regexp_replace(
      regexp_replace(d."lastError", 'HTTP ([1-5])[0-9]{2}( \(a redirect; redirects are not followed\))?, [0-9]+ bytes', 'the receiver answered \1xx', 'g'),
      'answer too large \([^)]*\)', 'the receiver''s answer was too large', 'g')
FROM "Organization" AS o
WHERE o.id = d."orgId" AND o.slug <> 'local' AND d."lastError" ~ '[0-9]+ bytes';

UPDATE "NotificationEndpoint" AS e
SET "disabledReason" = regexp_replace(
      regexp_replace(e."disabledReason", 'HTTP ([1-5])[0-9]{2}( \(a redirect; redirects are not followed\))?, [0-9]+ bytes', 'the receiver answered \1xx', 'g'),
      'answer too large \([^)]*\)', 'the receiver''s answer was too large', 'g')
FROM "Organization" AS o
WHERE o.id = e."orgId" AND o.slug <> 'local' AND e."disabledReason" ~ '[0-9]+ bytes';

UPDATE "OrgNotice" AS n
SET message = regexp_replace(
      regexp_replace(n.message, 'HTTP ([1-5])[0-9]{2}( \(a redirect; redirects are not followed\))?, [0-9]+ bytes', 'the receiver answered \1xx', 'g'),
      'answer too large \([^)]*\)', 'the receiver''s answer was too large', 'g')
FROM "Organization" AS o
WHERE o.id = n."orgId" AND o.slug <> 'local' AND n.kind LIKE 'notification.%' AND n.message ~ '[0-9]+ bytes';
