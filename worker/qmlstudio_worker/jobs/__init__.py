"""Running a job: the envelope and its validation, the job kinds and their dispatch, the run record, and
the orchestration shared by problems (datasets, devices and results of a job body; forecasting jobs;
inference and resource estimates). Problem modules are imported only when a job of their kind runs."""
