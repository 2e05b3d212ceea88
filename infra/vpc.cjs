// provider.vpc from the optional deploy parameters `subnetIds` and `securityGroupIds` (comma-separated):
// both set → the functions run in the cluster's VPC; neither → no VPC (the template gets no VpcConfig at all —
// CloudFormation refuses empty lists); one without the other → a clear error before anything is deployed.
// A JS resolver because Serverless variables cannot drop a whole block conditionally. See docs/deploy.md.
const list = (v) =>
  String(v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

module.exports = async ({ resolveVariable }) => {
  const subnetIds = list(await resolveVariable('param:subnetIds'));
  const securityGroupIds = list(await resolveVariable('param:securityGroupIds'));
  if (subnetIds.length === 0 && securityGroupIds.length === 0) return null;
  if (subnetIds.length === 0 || securityGroupIds.length === 0) {
    throw new Error(
      `--param="subnetIds=…" and --param="securityGroupIds=…" go together (got subnetIds=${JSON.stringify(subnetIds)}, securityGroupIds=${JSON.stringify(securityGroupIds)})`,
    );
  }
  const bad = [...subnetIds.filter((s) => !/^subnet-[0-9a-f]{8,17}$/.test(s)), ...securityGroupIds.filter((s) => !/^sg-[0-9a-f]{8,17}$/.test(s))];
  if (bad.length) throw new Error(`not a subnet or security group id: ${bad.join(', ')}`);
  return { subnetIds, securityGroupIds };
};
