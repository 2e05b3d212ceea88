// Deploy parameters read by the JS resolvers (infra/*.cjs): a true/false parameter, with a clear error naming it.
async function booleanParam(resolveVariable, name) {
  const on = String(await resolveVariable(`param:${name}`))
    .trim()
    .toLowerCase();
  if (!['true', 'false'].includes(on)) throw new Error(`--param="${name}=…" must be true or false, got ${JSON.stringify(on)}`);
  return on === 'true';
}

module.exports = { booleanParam };
