// Memory (MB) of the functions sized by a deploy parameter: the controller, with --param="controllerMemorySize=256".
// A --param value is a string and serverless validates memorySize as an integer, so it is parsed here, with an
// error that names the parameter. See docs/controller.md, "Sizing".
const sizes = (params) => {
  const raw = String(params.controllerMemorySize ?? '').trim();
  const mb = Number(raw);
  if (!/^\d+$/.test(raw) || mb < 128 || mb > 10240) {
    throw new Error(`--param="controllerMemorySize=…" must be a whole number of MB from 128 to 10240, got ${JSON.stringify(raw)}`);
  }
  return { controller: mb };
};

const resolve = async ({ resolveVariable }) => sizes({ controllerMemorySize: await resolveVariable('param:controllerMemorySize') });

module.exports = resolve;
/** The same sizes from plain parameters, for the simulator (serverless.yml's defaults, or a scenario's settings). */
module.exports.sizes = sizes;
