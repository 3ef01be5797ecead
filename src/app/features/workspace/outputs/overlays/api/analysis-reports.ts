import { useEffect, useState } from 'react';
import type { paths } from '../../../../../../generated/api';
import { ApiError, apiFetch } from '../../../../../api/client';

/**
 * The written reports of the Analyze and Compare overlays (spec workspace.md section 7):
 * POST /output-analyzer/output-analyze?output_id&application_name&interpreted_type_is_technical and
 * GET /application-outputs/compare?output_id1&output_id2. Wire shapes from the OpenAPI document.
 */

type DataOf<R> = R extends { content: { 'application/json': { data: infer D } } } ? D : never;
export type AnalysisReport = DataOf<paths['/api/output-analyzer/output-analyze']['post']['responses'][200]>;
export type ComparisonReport = DataOf<paths['/api/application-outputs/compare']['get']['responses'][200]>;

export async function getAnalysisReport(
  outputId: number,
  applicationName: string,
  technical: boolean,
  signal?: AbortSignal,
): Promise<AnalysisReport> {
  const query = new URLSearchParams({
    output_id: String(outputId),
    application_name: applicationName,
    interpreted_type_is_technical: String(technical),
  });
  const reply = await apiFetch<{ data: AnalysisReport }>(`/output-analyzer/output-analyze?${query}`, {
    method: 'POST',
    ...(signal ? { signal } : {}),
  });
  return reply.data;
}

export async function getComparisonReport(
  outputIds: [number, number],
  technical: boolean,
  signal?: AbortSignal,
): Promise<ComparisonReport> {
  const query = new URLSearchParams({
    output_id1: String(outputIds[0]),
    output_id2: String(outputIds[1]),
    interpreted_type_is_technical: String(technical),
  });
  const reply = await apiFetch<{ data: ComparisonReport }>(
    `/application-outputs/compare?${query}`,
    signal ? { signal } : {},
  );
  return reply.data;
}

/** A report call's state: the reply, or the server's refusal text, while the overlay is open. */
export function useReport<T>(load: (signal: AbortSignal) => Promise<T>, key: string) {
  const [state, setState] = useState<{ key: string; report: T | null; error: string | null }>({
    key,
    report: null,
    error: null,
  });
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal).then(
      (report) => setState({ key, report, error: null }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState({
          key,
          report: null,
          error: error instanceof ApiError || error instanceof Error ? error.message : String(error),
        });
      },
    );
    return () => controller.abort();
    // the key names everything `load` reads
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return state.key === key ? state : { key, report: null, error: null };
}
