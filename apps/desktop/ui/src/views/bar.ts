// The keyword marking for the transcript panel while it is still built by hand; components use
// <Highlight> from components/highlight.tsx.
export { highlight } from '../components/highlight.tsx';
