// Reserved concurrency per function key, or none when deployed with --param="reserveConcurrency=false".
// AWS keeps an account's unreserved concurrency at 10 or more, so an account whose quota is 10 cannot reserve
// any; the DynamoDB leases (controller, disruption, provisioner, garbage collection) serialise the functions
// anyway — the reservation only caps what a burst of invocations can cost. See docs/deploy.md.
const { booleanParam } = require('./params.cjs');
const RESERVED = { controller: 2, provisioner: 1, disruption: 1, garbageCollection: 1 };

const resolve = async ({ resolveVariable }) => {
  const on = await booleanParam(resolveVariable, 'reserveConcurrency');
  return on ? RESERVED : {};
};

module.exports = resolve;
/** The table itself, for the simulator and tests (they deploy with the default: reserved). */
module.exports.reserved = RESERVED;
