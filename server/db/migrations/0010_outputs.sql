-- Outputs (issue #10): an output is a jobs row with application_id. app_data is the application's
-- data as it was when the run started (the output's record keeps it even if the application changes);
-- extension is what the worker envelope carries beside the spec's job body (the resolved dataset,
-- normalization, missing values, target column, seed); name is the output's name ('{app_name} #{id}').
alter table jobs add column app_data jsonb;
alter table jobs add column extension jsonb not null default '{}'::jsonb;
alter table jobs add column name text;
