import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xyflow/react/dist/style.css';
import '../src/react/ai-chat.css';
import './playground.css';
import { PlaygroundApp } from './playground-app';

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <PlaygroundApp />
  </StrictMode>,
);
