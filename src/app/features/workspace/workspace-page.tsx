import { lazy, Suspense, useMemo } from 'react';
import { useParams } from 'react-router';
import type { Problem } from '../../../engine';
import { PipelineValidityNotice } from '../../../renderers';
import { browserRegistry } from '../../../renderers/browser-registry';
import { useOptionalToast } from '../../components/toasts';
import type { ApplicationDetail } from '../../api/applications';
import { useApplicationOr404 } from '../../api/use-application-or-404';
import { useAuth } from '../../session/auth-context';
import { ImageDatasetTab, usesImageDataset } from './dataset/image-dataset-tab';
import { DatasetTab } from './dataset/csv-table';
import { ModelTab } from './model-tab';
import { OutputsTab } from './outputs';
import { useLeaveGuard } from './use-leave-guard';
import { useWorkspace } from './use-workspace';
import './workspace.css';
import { incompleteTabs, TAB, workspaceTabs } from './workspace-rules';
import { WorkspaceTabs, panelId, tabId } from './workspace-tabs';
import { WorkspaceTopBar } from './workspace-top-bar';
import type { WorkspaceUser } from './workspace-types';

// React Flow is the heaviest part of the workspace and only the Pipeline tab draws it (spec section 2).
const PipelineTab = lazy(() => import('./pipeline-tab'));

/**
 * /development/:problemId/:appId/:appName (and /developmentbio/...): loads the application (a failure is
 * toasted and goes to /error/404, spec sections 4 and 8) and opens the workspace of its problem. Every form
 * comes from the problem's schema file, so a problem added as a file gets a workspace with no code here.
 */
export function WorkspacePage() {
  const { appId } = useParams();
  const notify = useOptionalToast();
  const onFailure = useMemo(() => (notify ? (text: string) => notify('error', text) : undefined), [notify]);
  const { app } = useApplicationOr404(appId, onFailure);
  const { user } = useAuth();

  const workspaceUser = useMemo<WorkspaceUser | null>(
    () => (user ? { id: user.id, name: user.name, email: user.email } : null),
    [user],
  );
  if (!app) return <p className="muted">Loading…</p>;
  const problem = browserRegistry().findProblem(app.app_problem_id);
  if (!problem) {
    return (
      <p className="form-error" role="alert">
        Unknown problem {app.app_problem_id}
      </p>
    );
  }
  return <Workspace key={app.id} problem={problem} app={app} user={workspaceUser} />;
}

function Workspace({
  problem,
  app,
  user,
}: {
  problem: Problem;
  app: ApplicationDetail;
  user: WorkspaceUser | null;
}) {
  const ws = useWorkspace(problem, app, user);
  useLeaveGuard(ws.unsaved);
  const tabs = useMemo(() => workspaceTabs(problem), [problem]);
  const incomplete = incompleteTabs(ws.state.pipeline);

  const panel = (() => {
    switch (ws.tab) {
      case TAB.dataset:
        // A problem that predicts from images or trains on .mat data has the brain tumor Dataset tab (schema-driven).
        if (usesImageDataset(problem)) {
          return (
            <ImageDatasetTab
              problem={problem}
              appData={ws.appData}
              context={ws.context}
              user={user}
              applicationId={app.id}
              onChange={ws.edit}
              onSaved={(next) => ws.keepTabValues(next, TAB.model)}
              onPredicted={ws.outputAdded}
            />
          );
        }
        return (
          <DatasetTab
            problem={problem}
            appData={ws.appData}
            context={ws.context}
            state={ws.state}
            dataset={ws.dataset}
            onChange={ws.edit}
            onSaved={(next) => ws.keepTabValues(next, TAB.model)}
          />
        );
      case TAB.model:
        return (
          <ModelTab
            problem={problem}
            appData={ws.appData}
            context={ws.context}
            state={ws.state}
            onChange={ws.edit}
            onSaved={(next) => ws.keepTabValues(next, TAB.pipeline)}
          />
        );
      case TAB.pipeline:
        return (
          <PipelineTab
            problem={problem}
            appData={ws.appData}
            context={ws.context}
            state={ws.state}
            onOpenTab={ws.selectTab}
          />
        );
      default:
        return (
          <OutputsTab
            problem={problem}
            applicationId={app.id}
            appData={ws.appData}
            running={ws.running}
            refreshKey={ws.refreshKey}
            onCountChange={ws.setOutputCount}
            onRunAgain={ws.runAgain}
          />
        );
    }
  })();

  return (
    <section className="page workspace">
      <WorkspaceTopBar
        appName={app.app_name}
        problemName={problem.name}
        running={ws.running}
        unsaved={ws.unsaved}
        onRun={() => void ws.run()}
        onSave={() => void ws.save()}
        onShowOutputs={() => ws.selectTab(TAB.outputs)}
      />
      <WorkspaceTabs
        tabs={tabs}
        active={ws.tab}
        incomplete={incomplete}
        outputCount={ws.outputCount}
        onSelect={ws.selectTab}
        warning={ws.warning}
      />
      {ws.missingShown && (
        <PipelineValidityNotice
          status={ws.state.pipeline}
          onFillMissing={(target) => ws.selectTab(target.tabIndex)}
        />
      )}
      <div className="workspace-panel" role="tabpanel" id={panelId(ws.tab)} aria-labelledby={tabId(ws.tab)}>
        {/* The panel's own boundary: a tab loading on demand keeps the bar and the tabs on screen. */}
        <Suspense fallback={<p className="muted">Loading…</p>}>{panel}</Suspense>
      </div>
    </section>
  );
}
