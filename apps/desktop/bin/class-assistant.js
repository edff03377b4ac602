#!/usr/bin/env node
// `class-assistant`: starts Class Assistant from this repository (`pnpm start`).
import '../src/launcher/main.ts';
