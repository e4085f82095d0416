import './zodConfig';
import './styles/theme.css';
import './styles/layout.css';
import './styles/components.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { TransportContext } from './api/hooks';
import { ApiError, createTransport } from './api/transport';
import { App } from './App';

const transport = createTransport();

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
