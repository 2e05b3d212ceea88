/**
 * Deterministic Step Functions execution names for interruption handling. The same (instance, event)
 * always gives the same name, so a duplicate SQS delivery finds the execution already started.
 * Step Functions names are at most 80 characters; we keep to [A-Za-z0-9_-].
 */
const MAX_NAME_LENGTH = 80;
const PREFIX = 'interruption';

/** 32-bit FNV-1a, as 8 hex digits: a short, stable digest for over-long event ids. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '-');
}

export function interruptionExecutionName(instanceId: string, eventId: string): string {
  const head = `${PREFIX}-${sanitize(instanceId)}-`;
  const event = sanitize(eventId);
  if (head.length + event.length <= MAX_NAME_LENGTH && event === eventId) return head + event;
  // Sanitizing or truncating could make two ids collide: append a digest of the exact original id.
  const digest = fnv1a(eventId);
  const room = MAX_NAME_LENGTH - head.length - digest.length - 1;
  return `${head}${event.slice(0, Math.max(0, room))}-${digest}`;
}
