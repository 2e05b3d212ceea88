/** The `nodewright` command line. Each subcommand lives in its own module; this file only wires them. */
import { Command, CommanderError, Option } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import { isManifestValidationError } from '../shared/core/errors';
import { isInstanceTypesFileInvalidError } from '../shared/core/instance-types/custom';
import { addAuditCommand } from './audit';
import { explainCommand, type ExplainOptions } from './explain';
import { CliUsageError, planCommand, type PlanCommandOptions } from './plan';
import { writeOut } from './stdout';
import type { SimulateOptions } from './simulate';
import type { SnapshotOptions as SnapshotCommandOptions } from './snapshot';

const out = writeOut;
const err = (s: string) => process.stderr.write(`${s}\n`);

/** A subcommand's exit code (the action sets it; main returns it). */
type SetCode = (code: number) => void;

/** Bad input (manifests, flags, files): exit 2 with one clear message and nothing planned. */
function userError(e: unknown): e is Error {
  return (
    isManifestValidationError(e) ||
    isInstanceTypesFileInvalidError(e) ||
    e instanceof CliUsageError ||
    (e instanceof Error && e.name === 'ScenarioInvalidError')
  );
}

/** What went wrong outside the command's own input, in one line with what to check. */
function environmentError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const what = `${e.name}: ${e.message}`;
  if (e.name === 'CredentialsProviderError') return `${what} (set AWS credentials: AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)`;
  const code = (e as { code?: unknown }).code;
  if (code === 'ENOTFOUND' || code === 'ECONNREFUSED' || code === 'ETIMEDOUT')
    return `${what} (the endpoint could not be reached: check the network and --region)`;
  return `${what} (NODEWRIGHT_DEBUG=1 prints the stack)`;
}

/** `plan`: what nodewright would launch for the manifests, offline. */
function addPlanCommand(program: Command, setCode: SetCode): void {
  program
    .command('plan')
    .description('Show what nodewright would launch for the pending pods in the given manifests, or in a running cluster (read-only).')
    .option('-f, --file <file>', 'manifest file (multi-document YAML); repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .option('--kubeconfig <file>', 'read a running cluster through this kubeconfig (read-only); -f files replace its objects of the same name')
    .option('--context <name>', 'the kubeconfig context to read (default: its current one; $KUBECONFIG as kubectl reads it)')
    .option('--instance-types <file>', 'JSON file replacing the bundled EC2 catalog')
    .option('--region <region>', "AWS region for prices and zones (a running cluster's own by default)", 'us-east-1')
    .option('--zones <zones>', 'comma-separated zones (default: <region>a,b,c)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('--no-optimize', 'print the Karpenter-style greedy plan, without re-packing toward the cheapest fleet')
    .option('--offline', 'with a running cluster: the bundled catalog, without asking AWS for instance types and prices')
    .action(async (o: PlanCommandOptions, cmd: Command) => {
      setCode(await planCommand({ ...o, regionGiven: cmd.getOptionValueSource('region') !== 'default' }, out, err));
    });
}

/** `explain`: why pending pods would (not) get a node. */
function addExplainCommand(program: Command, setCode: SetCode): void {
  program
    .command('explain')
    .description('Explain why pending pods in the given manifests, or in a running cluster (read-only), would (not) get a node, NodePool by NodePool.')
    .option('-f, --file <file>', 'manifest file (multi-document YAML); repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .option('--kubeconfig <file>', 'read a running cluster through this kubeconfig (read-only)')
    .option('--context <name>', 'the kubeconfig context to read (default: its current one)')
    .option('--pod <namespace/name>', 'explain only this pod')
    .option('--node <name>', 'explain why this node would (not) be disrupted now (consolidation, drift, emptiness, expiry)')
    .option('--instance-types <file>', 'JSON file replacing the bundled EC2 catalog')
    .option('--region <region>', "AWS region for prices and zones (a running cluster's own by default)", 'us-east-1')
    .option('--zones <zones>', 'comma-separated zones (default: <region>a,b,c)')
    .option('--offline', 'with a running cluster: the bundled catalog, without asking AWS for instance types and prices')
    .action(async (o: ExplainOptions, cmd: Command) => {
      setCode(await explainCommand({ ...o, regionGiven: cmd.getOptionValueSource('region') !== 'default' }, out, err));
    });
}

/** `doctor`: checks an account (or the simulator's) before and after a deploy. */
function addDoctorCommand(program: Command, setCode: SetCode): void {
  program
    .command('doctor')
    .description(
      'Check an account before and after a deploy (cluster, access entries, API and RBAC, discovery tags, node role, prices, interruption queue); --sim checks the simulated one.',
    )
    .option('--cluster <name>', 'EKS cluster name')
    .option('--region <region>', "the cluster's region")
    .option('--stage <stage>', 'the deployed stage (stack nodewright-<stage>)', 'prod')
    .option('--node-role <name>', 'node IAM role (default KarpenterNodeRole-<cluster>)')
    .option('--node-instance-profile <name>', 'the nodeInstanceProfileName deploy parameter, if set')
    .option('--queue <name>', "interruption queue name (default: nodewright-<cluster>, the deploy's default)")
    .option('--sim', "check the simulator's account and cluster instead (the walkthrough's objects)")
    .option('--in-stack', "run the checks inside the deployed stack (its doctor function): the functions' network, role, access entry and RBAC")
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(
      async (o: {
        cluster?: string;
        region?: string;
        stage: string;
        nodeRole?: string;
        nodeInstanceProfile?: string;
        queue?: string;
        sim?: boolean;
        inStack?: boolean;
        output: 'table' | 'json';
      }) => {
        // Loaded on use: the AWS SDK and Kubernetes client it needs would slow every other command's start.
        const { doctorCommand } = await import('./doctor');
        setCode(await doctorCommand(o, out));
      },
    );
}

/** `simulate`, `sim serve` and `demo`: the simulator. */
function addSimulatorCommands(program: Command, setCode: SetCode): void {
  program
    .command('simulate')
    .description('Run a scenario on a simulated EKS + EC2 with the production functions, adapters and state machines.')
    .argument('[scenario]', 'scenario YAML (see examples/scenarios/)')
    .option('--kubeconfig <file>', 'replay a running cluster instead (read-only, as `snapshot` writes it)')
    .option('--context <name>', 'the kubeconfig context to read (default: its current one; $KUBECONFIG as kubectl reads it)')
    .option('--duration <duration>', 'with --kubeconfig: how long to replay', '1h')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('--report <file>', 'also write a self-contained HTML report')
    .addOption(
      new Option('--log-format <format>', "also print nodewright's log lines to stderr, as text or one JSON object per line").choices(['text', 'json']),
    )
    .action(async (file: string | undefined, o: SimulateOptions) => {
      const { simulateFile } = await import('./simulate');
      setCode(await simulateFile(file, o, out, err));
    });

  program
    .command('snapshot')
    .description('Write a running cluster as a scenario (read-only): replay it offline with simulate, change a NodePool, compare.')
    .option('--kubeconfig <file>', 'the cluster to read (default: $KUBECONFIG or ~/.kube/config, as kubectl)')
    .option('--context <name>', 'the kubeconfig context to read (default: its current one)')
    .option('-o, --output <file>', 'write the scenario here (default: stdout)')
    .option('--name <name>', "the scenario's name", 'snapshot')
    .option('--duration <duration>', 'how long the scenario runs', '1h')
    .action(async (o: SnapshotCommandOptions) => {
      const { snapshotCommand } = await import('./snapshot');
      setCode(await snapshotCommand(o, out, err));
    });

  program
    .command('sim')
    .description('Interactive simulator.')
    .command('serve')
    .description('Serve a simulated cluster in real time (HTTPS on 127.0.0.1) for kubectl, with nodewright reacting.')
    .option('--scenario <file>', 'objects and timed events to start from (e.g. examples/scenarios/walkthrough.yaml)')
    .option('-f, --file <file>', 'plain manifests to apply at the start (e.g. examples/inflate.yaml)')
    .option('--kubeconfig <path>', 'where to write the kubeconfig', 'nodewright-sim.kubeconfig')
    .option('--port <port>', 'fixed port on 127.0.0.1 (default: any free port)')
    .option('--speed <x>', 'simulated seconds per real second', '1')
    .option('--node-startup <seconds>', 'seconds from launch to a Ready node', '10')
    .option(
      '--cluster-name <name>',
      'the simulated cluster: subnets and security groups tagged karpenter.sh/discovery=<name>; ${CLUSTER_NAME} in -f manifests',
      'nodewright-sim',
    )
    .option('--metrics-port <port>', "Karpenter's metrics in Prometheus format on http://127.0.0.1:<port>/metrics (0: any free port, off: none)", '8080')
    .addOption(
      new Option('--log-format <format>', 'log lines as text (with their fields) or one JSON object per line').choices(['text', 'json']).default('text'),
    )
    .action(
      async (o: {
        scenario?: string;
        file?: string;
        kubeconfig: string;
        port?: string;
        speed?: string;
        nodeStartup?: string;
        clusterName: string;
        metricsPort?: string;
        logFormat: 'text' | 'json';
      }) => {
        const { serveCommand } = await import('./serve');
        setCode(await serveCommand(o, out));
      },
    );

  program
    .command('demo')
    .description('Run the seed walkthrough on the embedded default (examples/inflate.yaml).')
    .action(async () => {
      const { demoCommand } = await import('./demo');
      setCode(await demoCommand(out, err));
    });
}

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const setCode: SetCode = (c) => {
    code = c;
  };
  const program = new Command()
    .name('nodewright')
    .description('Serverless, Karpenter-compatible node autoscaler for Amazon EKS: plan, simulate, explain.')
    .version(pkg.version, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });
  addPlanCommand(program, setCode);
  addExplainCommand(program, setCode);
  addAuditCommand(program, setCode, out);
  addDoctorCommand(program, setCode);
  addSimulatorCommands(program, setCode);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (userError(e)) {
      err(`error: ${e.message}`);
      return 2;
    }
    // The environment failed (no credentials, no network, an API refusing): one line, never a stack trace.
    err(`error: ${environmentError(e)}`);
    if (process.env.NODEWRIGHT_DEBUG && e instanceof Error && e.stack) err(e.stack);
    return 1;
  }
  return code;
}
