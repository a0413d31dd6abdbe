-- Metadata is stored as aspects per entity: one row per (entity URN, aspect).
CREATE TABLE aspects (
    urn         text        NOT NULL,
    entity_type text        NOT NULL,
    aspect      text        NOT NULL,
    value       jsonb       NOT NULL,
    created_at  timestamptz NOT NULL,
    created_by  text        NOT NULL,
    PRIMARY KEY (urn, aspect)
);

CREATE INDEX aspects_by_type ON aspects (entity_type, aspect, created_at DESC);

-- Service secrets (token signing key, salt) generated once and shared by
-- every replica that uses this database.
CREATE TABLE secrets (
    name       text        PRIMARY KEY,
    value      bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
