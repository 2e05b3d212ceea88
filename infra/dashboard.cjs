// The CloudWatch dashboard `nodewright-<stage>` (deploy parameter `dashboard`, default true): what the Grafana
// dashboard of infra/grafana shows that AWS measures by itself — launches, terminations and disruptions (Step
// Functions executions started, succeeded, failed), the functions' errors, throttles and longest runs, and the
// interruption queue and its dead letters — so it needs no `metrics=cloudwatch`. A dashboard costs $3 a month
// beyond the account's first three; --param="dashboard=false" leaves it out. docs/operations.md, "Dashboard".
const { booleanParam } = require('./params.cjs');
const REGION = '__REGION__';
const ACCOUNT = '__ACCOUNT__';
const PARTITION = '__PARTITION__';

const machineArn = (stage, machine) => `arn:${PARTITION}:states:${REGION}:${ACCOUNT}:stateMachine:nodewright-${stage}-${machine}`;

function widgets(stage, queue) {
  const fn = (key) => `nodewright-${stage}-${key}`;
  const executions = (machine, title, y) => ({
    type: 'metric',
    x: 0,
    y,
    width: 12,
    height: 6,
    properties: {
      title,
      region: REGION,
      stat: 'Sum',
      period: 300,
      metrics: ['ExecutionsStarted', 'ExecutionsSucceeded', 'ExecutionsFailed'].map((m) => ['AWS/States', m, 'StateMachineArn', machineArn(stage, machine)]),
    },
  });
  const perFunction = (metric, stat, keys, title, x, y) => ({
    type: 'metric',
    x,
    y,
    width: 12,
    height: 6,
    properties: { title, region: REGION, stat, period: 300, metrics: keys.map((k) => ['AWS/Lambda', metric, 'FunctionName', fn(k)]) },
  });
  const planners = ['controller', 'provisioner', 'disruption', 'interruption', 'garbageCollection'];
  return [
    executions('launch', 'Launches (launch executions)', 0),
    executions('terminate', 'Terminations (terminate executions)', 6),
    executions('disrupt', 'Disruptions (disrupt executions)', 12),
    perFunction('Errors', 'Sum', planners, 'Function errors', 12, 0),
    perFunction('Throttles', 'Sum', planners, 'Function throttles', 12, 6),
    perFunction('Duration', 'Maximum', ['provisioner', 'disruption', 'garbageCollection'], 'Longest run (ms)', 12, 12),
    {
      type: 'metric',
      x: 0,
      y: 18,
      width: 24,
      height: 6,
      properties: {
        title: 'Interruption queue',
        region: REGION,
        stat: 'Maximum',
        period: 300,
        metrics: [
          ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName', queue],
          ['AWS/SQS', 'ApproximateAgeOfOldestMessage', 'QueueName', queue],
          ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'QueueName', `${queue}-dlq`],
        ],
      },
    },
  ];
}

/** The body as CloudFormation takes it: a string, its region, account and partition joined in from the stack. */
function dashboardBody(stage, queue) {
  const text = JSON.stringify({ widgets: widgets(stage, queue) });
  const refs = { [REGION]: { Ref: 'AWS::Region' }, [ACCOUNT]: { Ref: 'AWS::AccountId' }, [PARTITION]: { Ref: 'AWS::Partition' } };
  const parts = text.split(/(__REGION__|__ACCOUNT__|__PARTITION__)/).map((p) => refs[p] ?? p);
  return { 'Fn::Join': ['', parts.filter((p) => p !== '')] };
}

module.exports = async ({ resolveVariable }) => {
  const on = await booleanParam(resolveVariable, 'dashboard');
  if (!on) return {};
  const stage = String(await resolveVariable('sls:stage'));
  const queue = String(await resolveVariable('param:interruptionQueueName'));
  return {
    Resources: {
      Dashboard: {
        Type: 'AWS::CloudWatch::Dashboard',
        Properties: { DashboardName: `nodewright-${stage}`, DashboardBody: dashboardBody(stage, queue) },
      },
    },
  };
};
