// Entry of the UI bundle.
import './styles.css';
import { startApp } from './app.tsx';

const host = document.getElementById('app');
if (host) startApp(host);
