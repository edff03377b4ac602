export type {
  FakeChatReply,
  FakeOpenAIServer,
  FakeOpenAIServerOptions,
  FakeToolCall,
  FakeTranscriptionReply,
  RecordedChatRequest,
  RecordedTranscriptionRequest,
} from './fake-openai-server.ts';
export { createFakeOpenAIServer } from './fake-openai-server.ts';
