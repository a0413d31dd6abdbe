-- The aspects that refer to other entities (DataHub's relationships: tags,
-- terms, owners, upstreams, containers, domains, siblings, the editable
-- schema's field tags and terms) are found by JSON containment when an
-- entity's references are deleted (POST /entities?action=deleteReferences).
-- A partial index keeps that a lookup without making every other aspect's
-- write pay for it.
CREATE INDEX aspects_references ON aspects USING gin (value jsonb_path_ops)
    WHERE aspect IN ('globalTags', 'glossaryTerms', 'ownership', 'upstreamLineage', 'container',
                     'domains', 'siblings', 'editableSchemaMetadata');
