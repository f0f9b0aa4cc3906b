/** The views of a server's catalog the renderer and the CLI show (server text kept as data, flagged). */
import type { GetPromptResult, Prompt, ReadResourceResult, ResourceTemplate, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ServerRecord, ServerState, ToolDefinition } from '../../../shared/domain';
import type { CatalogView, PromptResultView, PromptView, ResourceReadView, ResourceTemplateView, ResourceView } from '../../../shared/views';
import { gatewayPromptName, gatewayResourceUri } from '../gateway/catalog-names';
import { diffToolDefinitions } from '../policy/diff';
import { toDiffView } from '../policy/views';
import type { Pinned, ServerCatalog } from './catalog-index';
import { approvedOf } from './catalog';
import { contentWarnings, textWarnings } from './content-checks';

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The pinning fields of a prompt or template: approved when, changed since, or new. */
function pinnedFields(record: ServerRecord, kind: 'prompt' | 'resource-template', pinned: Pinned<unknown>) {
  const approved = approvedOf(record, kind, pinned.key);
  const changed = approved && approved.fingerprint !== pinned.fingerprint;
  return {
    fingerprint: pinned.fingerprint,
    ...(approved && !changed ? { approvedAt: approved.approvedAt } : {}),
    ...(changed
      ? { pendingChange: { diff: toDiffView(diffToolDefinitions(approved.definition as unknown as ToolDefinition, pinned.definition as ToolDefinition)) } }
      : {}),
    isNew: !approved,
  };
}

/** Everything a server offers besides tools, with its pinning state. */
export function toCatalogView(record: ServerRecord, state: ServerState, capabilities: ServerCapabilities | undefined, catalog: ServerCatalog | undefined, problem?: string): CatalogView {
  const resources: ResourceView[] = (catalog?.resources ?? []).map((resource) => ({
    uri: resource.uri,
    gatewayUri: gatewayResourceUri(record.name, resource.uri) ?? resource.uri,
    name: resource.name,
    ...(str(resource.title) !== undefined ? { title: resource.title } : {}),
    ...(str(resource.description) !== undefined ? { description: resource.description } : {}),
    ...(str(resource.mimeType) !== undefined ? { mimeType: resource.mimeType } : {}),
    ...(typeof resource.size === 'number' ? { size: resource.size } : {}),
    warnings: textWarnings(resource.uri, resource.name, str(resource.title), str(resource.description)),
  }));
  const resourceTemplates: ResourceTemplateView[] = (catalog?.resourceTemplates ?? []).map((pinned) => templateView(record, pinned));
  const prompts: PromptView[] = (catalog?.prompts ?? []).map((pinned) => promptView(record, pinned));
  return {
    server: record.name,
    state,
    offers: {
      resources: capabilities?.resources !== undefined,
      subscribe: capabilities?.resources?.subscribe === true,
      prompts: capabilities?.prompts !== undefined,
      completions: capabilities?.completions !== undefined,
      logging: capabilities?.logging !== undefined,
    },
    resources,
    resourceTemplates,
    prompts,
    truncated: catalog?.truncated ?? [],
    ...(record.logLevel ? { logLevel: record.logLevel } : {}),
    ...(problem ? { problem } : {}),
  };
}

function templateView(record: ServerRecord, pinned: Pinned<ResourceTemplate>): ResourceTemplateView {
  const template = pinned.definition;
  return {
    uriTemplate: template.uriTemplate,
    gatewayUriTemplate: gatewayResourceUri(record.name, template.uriTemplate) ?? template.uriTemplate,
    name: template.name,
    ...(str(template.title) !== undefined ? { title: template.title } : {}),
    ...(str(template.description) !== undefined ? { description: template.description } : {}),
    ...(str(template.mimeType) !== undefined ? { mimeType: template.mimeType } : {}),
    ...pinnedFields(record, 'resource-template', pinned),
    warnings: textWarnings(template.uriTemplate, template.name, str(template.title), str(template.description)),
  };
}

function promptView(record: ServerRecord, pinned: Pinned<Prompt>): PromptView {
  const prompt = pinned.definition;
  const args = (prompt.arguments ?? []).map((arg) => ({ name: arg.name, ...(str(arg.description) !== undefined ? { description: arg.description } : {}), ...(typeof arg.required === 'boolean' ? { required: arg.required } : {}) }));
  return {
    name: prompt.name,
    namespacedName: gatewayPromptName(record.name, prompt.name) ?? prompt.name,
    ...(str(prompt.title) !== undefined ? { title: prompt.title } : {}),
    ...(str(prompt.description) !== undefined ? { description: prompt.description } : {}),
    arguments: args,
    ...pinnedFields(record, 'prompt', pinned),
    warnings: textWarnings(prompt.name, str(prompt.title), str(prompt.description), ...args.map((arg) => arg.description)),
  };
}

/** A resource as read: text kept as text (inert), binary described, each part flagged. */
export function toResourceReadView(server: string, uri: string, result: ReadResourceResult): ResourceReadView {
  return {
    server,
    uri,
    contents: (result.contents ?? []).map((item) => {
      const text = str((item as { text?: unknown }).text);
      const blob = str((item as { blob?: unknown }).blob);
      return {
        uri: item.uri,
        ...(str(item.mimeType) !== undefined ? { mimeType: item.mimeType } : {}),
        kind: blob !== undefined ? ('binary' as const) : ('text' as const),
        ...(text !== undefined && blob === undefined ? { text } : {}),
        ...(blob !== undefined ? { blob } : {}),
        bytes: blob !== undefined ? base64Bytes(blob) : Buffer.byteLength(text ?? '', 'utf8'),
        warnings: contentWarnings(item),
      };
    }),
  };
}

/** The size of base64 data once decoded, without decoding it (the padding is not data). */
function base64Bytes(blob: string): number {
  const padding = blob.endsWith('==') ? 2 : blob.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((blob.length * 3) / 4) - padding);
}

/** A prompt as the server filled it in: its messages, each flagged. */
export function toPromptResultView(server: string, name: string, result: GetPromptResult): PromptResultView {
  return {
    server,
    name,
    ...(str(result.description) !== undefined ? { description: result.description } : {}),
    messages: result.messages.map((message) => {
      const content = message.content as { type?: string; text?: unknown; resource?: { text?: unknown; mimeType?: string; blob?: unknown } };
      const warnings = content.type === 'text' ? textWarnings(str(content.text)) : content.type === 'resource' && content.resource ? contentWarnings(content.resource) : [];
      return { role: message.role, content: message.content, warnings };
    }),
  };
}
