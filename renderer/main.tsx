import './zodConfig';
import './styles/theme.css';
import './styles/layout.css';
import './styles/components.css';
import './styles/activity.css';
import './styles/results.css';
import './styles/providers.css';
import './styles/settings.css';
import { notifyManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { TransportContext } from './api/hooks';
import { ApiError } from './api/errors';
import { createTransport } from './api/transport';
import { App } from './App';
import { watchReachability } from './features/gateway/reachability';

// Every request and the event stream tell the page whether its gateway answers (Execute, the banner).
const transport = watchReachability(createTransport());

// react-query hands answers to React in a batch it runs on a timer by default. A microtask
// still batches, and lets a search answer reach the screen in the frame it arrived in, instead
// of sometimes one frame later (the console's keystroke-to-paint budget is 50 ms).
notifyManager.setScheduler(queueMicrotask);

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refused token will not fix itself by asking again; a restarting gateway might.
      retry: (failures, error) => !(error instanceof ApiError && error.code === 'UNAUTHORIZED') && failures < 2,
      staleTime: 5_000,
    },
  },
});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <TransportContext.Provider value={transport}>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </TransportContext.Provider>
  </StrictMode>,
);
