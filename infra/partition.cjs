// The AWS partition of the deploy's region, for the ARNs CloudFormation cannot take from AWS::Partition: the
// Resource of the state machines' Task states (`arn:<partition>:states:::lambda:invoke`), which the ASL must carry
// as a plain string. AWS China (cn-*) is aws-cn, GovCloud (us-gov-*) aws-us-gov, every other region aws.
const partitionOf = (region) => {
  const r = String(region ?? '').trim();
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(r)) throw new Error(`--param="region=…" must be an AWS region such as eu-west-1, got ${JSON.stringify(r)}`);
  return r.startsWith('cn-') ? 'aws-cn' : r.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
};

module.exports = async ({ resolveVariable }) => {
  const partition = partitionOf(await resolveVariable('param:region'));
  return { partition, lambdaInvoke: `arn:${partition}:states:::lambda:invoke` };
};
module.exports.partitionOf = partitionOf;
