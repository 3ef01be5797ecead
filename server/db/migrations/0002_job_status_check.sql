-- Job statuses: the list lives in server/jobs/job-states.ts (JOB_STATUSES); jobs.test.ts checks that
-- this constraint names exactly that list, so a status added there fails the test until a migration
-- widens the constraint.
alter table jobs add constraint jobs_status_known
  check (status in ('queued', 'running', 'Completed', 'Failed', 'Manual Stop'));
