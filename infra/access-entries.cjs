// EKS access entries for the functions' roles (deploy parameter `accessEntries`, default true): each role that a
// function runs with (the `role:` of every function in infra/functions/*.yml) gets an AWS::EKS::AccessEntry in the
// Kubernetes group `nodewright`, which infra/kubernetes/rbac.yaml binds to the ClusterRole the functions need. The
// cluster's authentication mode must allow access entries (API or API_AND_CONFIG_MAP; `nodewright doctor` checks
// it); with CONFIG_MAP only, deploy with --param="accessEntries=false" and map the roles in aws-auth (docs/deploy.md).
// A JS resolver so that the list follows the functions and cannot drift from them.
const { booleanParam } = require('./params.cjs');
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { parse } = require('yaml');

const GROUP = 'nodewright';

/** The function roles' logical ids, in name order. */
function functionRoles(dir = join(__dirname, 'functions')) {
  const roles = new Set();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yml'))) {
    for (const fn of Object.values(parse(readFileSync(join(dir, file), 'utf8')) ?? {})) if (fn && fn.role) roles.add(fn.role);
  }
  return [...roles].sort();
}

function accessEntries(clusterName) {
  const Resources = {};
  for (const role of functionRoles()) {
    Resources[`${role}AccessEntry`] = {
      Type: 'AWS::EKS::AccessEntry',
      Properties: {
        ClusterName: clusterName,
        PrincipalArn: { 'Fn::GetAtt': [role, 'Arn'] },
        Type: 'STANDARD',
        KubernetesGroups: [GROUP],
      },
    };
  }
  return { Resources };
}

module.exports = async ({ resolveVariable }) => {
  const on = await booleanParam(resolveVariable, 'accessEntries');
  if (!on) return {};
  return accessEntries(String(await resolveVariable('param:clusterName')));
};
module.exports.functionRoles = functionRoles;
