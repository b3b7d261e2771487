import { options } from 'preact';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { Router } from './router.tsx';
import './styles.css';

// The console runs on Preact (console/vite.config.ts). Preact runs effects after the next frame; React ran them
// in a task right after the render. recharts reports its props to its store in effects, a step a frame under
// Preact's timing: run them in the next task, as React did.
options.requestAnimationFrame = (run) => void setTimeout(run);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Router>
      <App />
    </Router>
  </StrictMode>,
);
