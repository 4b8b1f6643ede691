-- FerretDB 1.24's postgresql handler creates each MongoDB index as a btree over
-- `(_jsonb -> 'field')`, but pushes equality filters down as `_jsonb -> 'field' @> '<value>'`,
-- an operator a btree cannot serve: every lookup, even by `_id`, scans its table. A GIN index
-- (jsonb_path_ops) over the same expression serves `@>`. This event trigger gives every such
-- btree a GIN twin on its first field as FerretDB creates it; the block below twins the ones that
-- already exist. `fastupdate = off`: with GIN's pending list, every lookup also reads the list of
-- entries not yet merged (up to 4 MB), so reads slowed as inserts piled up between vacuums.
-- Idempotent: run at every start. See docs/decisions.md ("Foundation").
CREATE OR REPLACE FUNCTION ferretdb_gin_twin(idx oid) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  def text := pg_get_indexdef(idx);
  tbl regclass;
  field text[];
BEGIN
  field := regexp_match(def, ' USING btree \(\(\(_jsonb -> ''((?:[^'']|'''')+)''::text\)\)');
  IF field IS NULL THEN RETURN; END IF;
  SELECT indrelid::regclass INTO tbl FROM pg_index WHERE indexrelid = idx;
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin ((_jsonb -> %L) jsonb_path_ops) WITH (fastupdate = off)',
                 'gin_twin_' || idx::text, tbl, replace(field[1], '''''', ''''));
END
$fn$;

CREATE OR REPLACE FUNCTION ferretdb_gin_twin_on_create() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE r record;
BEGIN
  FOR r IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE INDEX' AND object_type = 'index' LOOP
    PERFORM ferretdb_gin_twin(r.objid);
  END LOOP;
END
$fn$;

DROP EVENT TRIGGER IF EXISTS ferretdb_gin_twins;
CREATE EVENT TRIGGER ferretdb_gin_twins ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION ferretdb_gin_twin_on_create();

DO $do$
DECLARE r record;
BEGIN
  FOR r IN SELECT i.indexrelid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
           WHERE a.amname = 'btree' AND pg_get_indexdef(i.indexrelid) LIKE '%(_jsonb -> %'
             AND NOT EXISTS (SELECT 1 FROM pg_class t WHERE t.relname = 'gin_twin_' || i.indexrelid::text) LOOP
    PERFORM ferretdb_gin_twin(r.indexrelid);
  END LOOP;
  FOR r IN SELECT c.oid::regclass AS idx FROM pg_class c WHERE c.relkind = 'i' AND c.relname LIKE 'gin\_twin\_%'
           AND NOT coalesce('fastupdate=off' = ANY (c.reloptions), false) LOOP
    EXECUTE format('ALTER INDEX %s SET (fastupdate = off)', r.idx);
  END LOOP;
END
$do$;
