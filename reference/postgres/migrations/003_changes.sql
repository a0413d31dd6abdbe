-- What authentication and authorization read on every request (users,
-- access tokens, policies) may be cached by each catalogd. Every change to
-- those rows, however it is made, bumps one counter and notifies every
-- catalogd listening on this database, in the transaction of the change:
-- a replica learns of it when it commits, and because the counter has no
-- gaps (a rolled-back change takes its number with it), a replica that
-- missed a message knows it did.
CREATE TABLE changes (
    id  int    PRIMARY KEY CHECK (id = 1),
    seq bigint NOT NULL
);
INSERT INTO changes (id, seq) VALUES (1, 0);

CREATE FUNCTION notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed text;
    n bigint;
BEGIN
    IF TG_OP = 'DELETE' THEN
        changed := OLD.urn;
    ELSE
        changed := NEW.urn;
    END IF;
    UPDATE changes SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO n;
    PERFORM pg_notify('catalogd_changes', n::text || ' ' || changed);
    RETURN NULL;
END
$$;

CREATE TRIGGER aspects_written AFTER INSERT OR UPDATE ON aspects
    FOR EACH ROW WHEN (NEW.entity_type IN ('corpuser', 'dataHubAccessToken', 'dataHubPolicy'))
    EXECUTE FUNCTION notify_change();
CREATE TRIGGER aspects_deleted AFTER DELETE ON aspects
    FOR EACH ROW WHEN (OLD.entity_type IN ('corpuser', 'dataHubAccessToken', 'dataHubPolicy'))
    EXECUTE FUNCTION notify_change();
