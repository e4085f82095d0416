/** Harn runs through react-query: which tasks are runs, one run's lines, and starting a run. */
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { HarnRunRequest } from '../../../../shared/harn';
import { useTransport } from '../../../api/hooks';
import type { ConsoleTransport } from '../../../api/transport';
import { applyTaskViews } from '../taskCache';
import { harnKeys } from './harnCache';

/** The runs the gateway keeps, kept current by `harn` events. */
export function useHarnRuns() {
  const transport = useTransport();
  return useQuery({ queryKey: harnKeys.runs, queryFn: () => transport.listHarnRuns(undefined), staleTime: Infinity });
}

/** One run with its lines; read only for a task that is a run. */
export function useHarnRun(taskId: string, enabled: boolean) {
  const transport = useTransport();
  return useQuery({ queryKey: harnKeys.run(taskId), queryFn: () => transport.getHarnRun({ taskId }), enabled, staleTime: Infinity });
}

/** Reads the runs again (the event stream (re)opened: events may have been missed). */
export function refreshHarnRuns(client: QueryClient): void {
  void client.invalidateQueries({ queryKey: harnKeys.runs });
  void client.invalidateQueries({ queryKey: ['harnRun'] });
}

/** `POST /harn/runs`: the answer is the run's task, shown at once. */
export function useStartHarnRun() {
  const transport: ConsoleTransport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (request: HarnRunRequest) => transport.startHarnRun(request),
    onSuccess: (task) => {
      applyTaskViews(client, { tasks: [task] });
      void client.invalidateQueries({ queryKey: harnKeys.runs });
    },
  });
}
