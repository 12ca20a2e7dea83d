import { mkdirSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileReadOutput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { READ_MAX_WHOLE_FILE_BYTES, type ReadOutput, createReadTool } from '../../../src/tools/builtin/read.js';
import { toApiSchema } from '../../../src/tools/registry.js';
import { type Sandbox, ok, run, sandbox } from './support.js';

let sb: Sandbox;
const read = createReadTool();
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

const file = (name: string, content: string | Buffer): string => {
  const p = join(sb.dir, name);
  writeFileSync(p, content);
  return p;
};

// 1×1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

describe('Read: text', () => {
  it('matches Claude Code for a one-line file (transcript parallel-tools)', async () => {
    const p = file('a.txt', 'alpha\n');
    const out = await ok<ReadOutput>(read, { file_path: p }, sb);
    expect(out).toEqual({
      data: { type: 'text', file: { filePath: p, content: 'alpha\n', numLines: 2, startLine: 1, totalLines: 2 } },
      content: '1\talpha\n2\t',
    });
    const st = statSync(p);
    expect(sb.env.fileState.get(p)).toEqual({ mtimeMs: st.mtimeMs, size: 6, partial: false });
  });

  it('reads a window with offset and limit, numbering from the offset, and records a partial read', async () => {
    const p = file('n.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    const out = await ok<ReadOutput>(read, { file_path: p, offset: 3, limit: 2 }, sb);
    expect(out).toEqual({
      data: { type: 'text', file: { filePath: p, content: 'line 3\nline 4', numLines: 2, startLine: 3, totalLines: 10 } },
      content: '3\tline 3\n4\tline 4',
    });
    expect(sb.env.fileState.get(p)?.partial).toBe(true);
  });

  it('reads 2000 lines by default and says how many there are', async () => {
    const p = file('long.txt', Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join('\n'));
    const out = await ok<ReadOutput>(read, { file_path: p }, sb);
    const text = out.content as string;
    expect({ numLines: out.data.type === 'text' && out.data.file.numLines, totalLines: out.data.type === 'text' && out.data.file.totalLines }).toEqual({
      numLines: 2000,
      totalLines: 2500,
    });
    expect(text.split('\n').at(-1)).toBe('2000\t2000');
  });

  it('cuts lines longer than 2000 characters', async () => {
    const p = file('wide.txt', `${'x'.repeat(5000)}\nshort\n`);
    const out = await ok<ReadOutput>(read, { file_path: p }, sb);
    expect(out.content).toBe(`1\t${'x'.repeat(2000)}… [line truncated: 5000 characters]\n2\tshort\n3\t`);
  });

  it('strips CR from CRLF line endings', async () => {
    const p = file('dos.txt', 'a\r\nb\r\n');
    const out = await ok<ReadOutput>(read, { file_path: p }, sb);
    expect(out.content).toBe('1\ta\n2\tb\n3\t');
  });

  it('decodes UTF-16LE files with a BOM', async () => {
    const p = file('u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\nwörld', 'utf16le')]));
    const out = await ok<ReadOutput>(read, { file_path: p }, sb);
    expect(out.content).toBe('1\théllo\n2\twörld');
  });

  it('warns about an empty file', async () => {
    const p = file('empty.txt', '');
    expect(await ok<ReadOutput>(read, { file_path: p }, sb)).toEqual({
      data: { type: 'text', file: { filePath: p, content: '', numLines: 0, startLine: 1, totalLines: 0 } },
      content: '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>',
    });
  });

  it('warns when the offset is past the end', async () => {
    const p = file('short.txt', 'a\nb');
    expect(await ok<ReadOutput>(read, { file_path: p, offset: 5 }, sb)).toEqual({
      data: { type: 'text', file: { filePath: p, content: '', numLines: 0, startLine: 5, totalLines: 2 } },
      content: '<system-reminder>Warning: the file exists but is shorter than the provided offset (5). The file has 2 lines.</system-reminder>',
    });
  });

  it('streams big files: windows past the first chunk, multi-byte characters split across chunks', async () => {
    // 2001-byte lines: chunk boundaries (256 KiB) fall inside lines and inside 2-byte characters.
    const line = 'é'.repeat(1000);
    const p = file('wide-utf8.txt', `${line}\n`.repeat(200));
    const out = await ok<ReadOutput>(read, { file_path: p, offset: 150, limit: 2 }, sb);
    expect(out).toEqual({
      data: { type: 'text', file: { filePath: p, content: `${line}\n${line}`, numLines: 2, startLine: 150, totalLines: 201 } },
      content: `150\t${line}\n151\t${line}`,
    });
  });

  it('keys the file state by the real path when read through a symlink', async () => {
    const p = file('target.txt', 'x\n');
    symlinkSync(p, join(sb.dir, 'alias.txt'));
    const out = await ok<ReadOutput>(read, { file_path: join(sb.dir, 'alias.txt') }, sb);
    expect(out.data.type === 'text' && out.data.file.filePath).toBe(join(sb.dir, 'alias.txt'));
    expect(sb.env.fileState.get(realpathSync(p))?.size).toBe(2);
  });
});

describe('Read: refusals', () => {
  it('rejects a relative path, suggesting the absolute one', async () => {
    expect(await run(read, { file_path: 'a.txt' }, sb)).toEqual({
      kind: 'rejected',
      message: `file_path must be an absolute path, not a relative one: "a.txt". Did you mean "${join(sb.dir, 'a.txt')}"?`,
    });
  });

  it('says a missing file does not exist', async () => {
    expect(await run(read, { file_path: join(sb.dir, 'nope.txt') }, sb)).toEqual({
      kind: 'rejected',
      message: `File does not exist. Note: your current working directory is ${sb.dir}.`,
    });
  });

  it('refuses a directory', async () => {
    mkdirSync(join(sb.dir, 'd'));
    expect(await run(read, { file_path: join(sb.dir, 'd') }, sb)).toEqual({
      kind: 'rejected',
      message: `${join(sb.dir, 'd')} is a directory, not a file. List its contents with Glob or Bash (ls).`,
    });
  });

  it('refuses binary files by extension and by content', async () => {
    const zip = file('x.zip', 'PK\u0003\u0004');
    const blob = file('data.txt', Buffer.from([0x61, 0x00, 0x62]));
    expect(await run(read, { file_path: zip }, sb)).toEqual({
      kind: 'rejected',
      message: `This tool cannot read binary files: ${zip} is a .zip file. Read handles text, images (PNG, JPEG, GIF, WebP), PDFs and Jupyter notebooks; inspect other files with Bash (e.g. \`file\`, \`xxd | head\`).`,
    });
    expect(await run(read, { file_path: blob }, sb)).toEqual({
      kind: 'error',
      message: `This tool cannot read binary files: ${blob} contains binary data (NUL bytes). Read handles text, images (PNG, JPEG, GIF, WebP), PDFs and Jupyter notebooks; inspect other files with Bash (e.g. \`file\`, \`xxd | head\`).`,
    });
    expect(sb.env.fileState.size).toBe(0);
  });

  it('refuses a whole-file read over 256 KB unless offset/limit or allow_large is given', async () => {
    const p = file('big.txt', `${'y'.repeat(99)}\n`.repeat(Math.ceil((READ_MAX_WHOLE_FILE_BYTES + 1) / 100)));
    const r = await run(read, { file_path: p }, sb);
    expect(r).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/^File content \(257KB\) exceeds maximum allowed size \(256KB\)\./) });
    expect((await run(read, { file_path: p, limit: 3 }, sb)).kind).toBe('ok');
    expect((await run(read, { file_path: p, allow_large: true, limit: 3000 }, sb)).kind).toBe('ok');
  });

  it('refuses output over ~25k tokens and does not record the read', async () => {
    const p = file('dense.txt', `${'z'.repeat(100)}\n`.repeat(1500));
    expect(await run(read, { file_path: p }, sb)).toEqual({
      kind: 'error',
      message: 'File content (~39475 tokens) exceeds maximum allowed tokens (25000). Use offset and limit to read a smaller part of the file, or search for specific content with Grep.',
    });
    expect(sb.env.fileState.get(p)).toBeUndefined();
  });

  it('rejects unknown parameters (strict schema)', async () => {
    const r = await run(read, { file_path: '/x', lines: 3 }, sb);
    expect(r.kind).toBe('invalid');
  });

  it('stops when the call is aborted', async () => {
    const p = file('a.txt', 'a\n');
    const ac = new AbortController();
    ac.abort(new Error('interrupted'));
    expect(await run(read, { file_path: p }, sb, { signal: ac.signal })).toEqual({ kind: 'error', message: 'interrupted' });
  });
});

describe('Read: images, PDFs, notebooks', () => {
  it('returns an image as a base64 image block', async () => {
    const p = file('dot.png', PNG);
    expect(await ok<ReadOutput>(read, { file_path: p }, sb)).toEqual({
      data: { type: 'image', file: { base64: PNG.toString('base64'), type: 'image/png', originalSize: PNG.length } },
      content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } }],
    });
  });

  it('uses the bytes, not the extension, for the media type and rejects a non-image', async () => {
    const jpegBytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
    const p = file('photo.png', jpegBytes);
    const out = await ok<ReadOutput>(read, { file_path: p }, sb);
    expect(out.data.type === 'image' && out.data.file.type).toBe('image/jpeg');
    const fake = file('fake.gif', 'not an image');
    expect(await run(read, { file_path: fake }, sb)).toEqual({
      kind: 'error',
      message: `${fake} is not a valid PNG, JPEG, GIF or WebP image (its first bytes do not match any of them).`,
    });
  });

  it('sends a PDF whole as a document block; page ranges are not supported', async () => {
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    const p = file('doc.pdf', pdf);
    expect(await ok<ReadOutput>(read, { file_path: p }, sb)).toEqual({
      data: { type: 'pdf', file: { filePath: p, base64: pdf.toString('base64'), originalSize: pdf.length } },
      content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') } }],
    });
    expect(await run(read, { file_path: p, pages: '1-2' }, sb)).toEqual({
      kind: 'rejected',
      message:
        'Reading PDF page ranges is not supported by agentd (it has no PDF renderer). Omit `pages` to send the whole PDF as a document (up to 10 MB), or extract text with Bash (e.g. `pdftotext`) if it is installed.',
    });
  });

  it('renders a notebook as cells with outputs', async () => {
    const nb = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { language_info: { name: 'python' } },
      cells: [
        { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Title\n', 'text'] },
        {
          cell_type: 'code',
          id: 'c1',
          metadata: {},
          execution_count: 3,
          source: 'print(1)',
          outputs: [{ output_type: 'stream', name: 'stdout', text: ['1\n'] }],
        },
      ],
    };
    const p = file('n.ipynb', JSON.stringify(nb));
    expect(await ok<ReadOutput>(read, { file_path: p }, sb)).toEqual({
      data: {
        type: 'notebook',
        file: {
          filePath: p,
          cells: [
            { cellType: 'markdown', source: '# Title\ntext', cell_id: 'intro' },
            { cellType: 'code', source: 'print(1)', cell_id: 'c1', execution_count: 3, language: 'python', outputs: [{ output_type: 'stream', text: '1\n' }] },
          ],
        },
      },
      content: [
        { type: 'text', text: '<cell id="intro"><cell_type>markdown</cell_type># Title\ntext</cell id="intro">' },
        { type: 'text', text: '<cell id="c1">print(1)</cell id="c1">\n<outputs cell_id="c1">\n1\n\n</outputs>' },
      ],
    });
    expect(sb.env.fileState.get(p)?.partial).toBe(false);
  });
});

describe('Read: contract', () => {
  it('declares a concurrency-safe, read-only, cancellable tool with a read subject', () => {
    const input = { file_path: '/a/b' };
    expect({
      name: read.name,
      safe: read.isConcurrencySafe(input),
      readOnly: read.isReadOnly(input),
      interrupt: read.interruptBehavior,
      subject: read.permissionSubject?.(input, sb.shared),
    }).toEqual({ name: 'Read', safe: true, readOnly: true, interrupt: 'cancel', subject: { kind: 'read', path: '/a/b' } });
  });

  it("sends Claude Code's input schema shape to the API", () => {
    const s = toApiSchema(read.inputSchema);
    expect({ required: s['required'], additionalProperties: s['additionalProperties'], props: Object.keys(s['properties'] as object) }).toEqual({
      required: ['file_path'],
      additionalProperties: false,
      props: ['file_path', 'offset', 'limit', 'pages', 'allow_large'],
    });
  });

  it('produces outputs assignable to the SDK type', () => {
    expectTypeOf<ReadOutput>().toExtend<FileReadOutput>();
  });
});
