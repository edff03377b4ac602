// Vite's `?worker&url` import: the URL of the module bundled as its own script (the capture
// worklet, loaded with audioWorklet.addModule).
declare module '*?worker&url' {
  const url: string;
  export default url;
}
