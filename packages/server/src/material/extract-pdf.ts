import { extractText, getDocumentProxy } from 'unpdf';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';

/**
 * Extracts the text of a PDF page by page with unpdf (PDF.js). Password-protected files are
 * UPLOAD_ENCRYPTED, unreadable ones UPLOAD_CORRUPT.
 */
export async function extractPdfPages(bytes: Uint8Array): Promise<string[]> {
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // PDF.js takes ownership of (detaches) the buffer it is given: hand it a copy.
    document = await getDocumentProxy(new Uint8Array(bytes), { stopAtErrors: false });
  } catch (error) {
    throw pdfError(error);
  }
  try {
    const { text } = await extractText(document, { mergePages: false });
    return text.map((page) =>
      page
        .replace(/[ \t\u00a0]+/g, ' ')
        .replace(/ *\n */g, '\n')
        .trim(),
    );
  } catch (error) {
    throw pdfError(error);
  } finally {
    await document.loadingTask.destroy();
  }
}

function pdfError(error: unknown): ServerError {
  const name = (error as { name?: string })?.name;
  const message = (error as Error)?.message ?? String(error);
  if (name === 'PasswordException') {
    return new ServerError(
      'UPLOAD_ENCRYPTED',
      localized(
        '这个 PDF 设置了密码。请另存一份不加密的副本后再上传。',
        'The PDF is password-protected. Save a copy without a password and upload it again.',
      ),
      {},
      { cause: error },
    );
  }
  return new ServerError(
    'UPLOAD_CORRUPT',
    localized(`无法读取这个 PDF：${message}。`, `The PDF could not be read: ${message}.`),
    {},
    { cause: error },
  );
}
