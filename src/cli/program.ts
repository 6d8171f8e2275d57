import { Command, CommanderError, Option } from 'commander';

import { VERSION } from '../core/package-info.js';
import { accountsCreate, clock, end, scenarioCancel, scenarioList, scenarioRun, trigger } from './commands.js';
import { CliError, type CliContext } from './context.js';
import { listen } from './listen.js';
import { mcp } from './mcp.js';
import { readinessDrill, readinessReport, readinessReset } from './readiness.js';
import { addServeFlags, runServe } from './serve.js';
import { findUnknownOption, moveLeadingOptions, type MovableOption, type UnknownOption } from './usage.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** The options of every command that talks to a running sandbox; given before the command or after it. */
const CLIENT_OPTIONS: readonly (MovableOption & { flags: string; description: string })[] = [
  {
    long: '--sandbox',
    takesValue: true,
    flags: '--sandbox <url>',
    description: 'the running sandbox [SANDBOX_URL, else http://localhost:8080]',
  },
  {
    long: '--api-key',
    takesValue: true,
    flags: '--api-key <key>',
    description: "the account's API key [WATER_API_KEY, else the demo account's key]",
  },
  { long: '--json', takesValue: false, flags: '--json', description: "print the sandbox's JSON answer" },
];

/** --sandbox, --api-key and --json (unless it prints no answer of the sandbox's), on every command that talks to a running sandbox. */
function clientCommand(command: Command, { json = true } = {}): Command {
  for (const option of CLIENT_OPTIONS)
    if (json || option.long !== '--json') command.option(option.flags, option.description);
  return command;
}

/** The `water-sandbox` command line, writing through `ctx`; `exit` receives each command's exit code. */
export function buildProgram(ctx: CliContext, exit: (code: number) => void): Command {
  const run =
    <A extends unknown[]>(action: (...args: A) => Promise<number>) =>
    async (...args: A): Promise<void> =>
      exit(await action(...args));
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  const program = new Command('water-sandbox')
    .description('The water-monitoring API sandbox: run it (serve, the default), or drive a running one.')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError()
    .addHelpText(
      'after',
      '\nRun water-sandbox serve --help for every setting of the server, water-sandbox <command> --help for a command.\n' +
        'The commands that talk to a running sandbox take --sandbox, --api-key and --json before or after the command.',
    )
    .configureOutput({ writeOut: (text) => ctx.stdout(text), writeErr: (text) => ctx.stderr(text) });

  addServeFlags(
    program
      .command('serve')
      .description('run the sandbox (the default command); each flag overrides its environment variable'),
  )
    .addHelpText('after', '\nA flag wins over its variable. Booleans take true/false (alone: true). Bad values exit 2.')
    .action(run((options: Record<string, unknown>) => runServe(options, ctx)));

  const accounts = program.command('accounts').description('accounts of a running sandbox');
  clientCommand(
    accounts
      .command('create')
      .description('make a fresh isolated account; prints shell lines: eval "$(water-sandbox accounts create)"'),
  )
    .option('--seed <n>', 'household seed (default the sandbox SEED)')
    .option('--locations <n>', 'how many locations, 1-10 (default 2)')
    .option('--name <name>', "the account's name")
    .option('--admin-token <token>', 'needed when the sandbox has ADMIN_TOKEN set [ADMIN_TOKEN]')
    .addOption(
      new Option(
        '--format <format>',
        'shell (NAME=value lines and an export line), env (NAME=value lines, e.g. >> "$GITHUB_ENV") or json',
      ).choices(['shell', 'env', 'json']),
    )
    .action(run((options: Parameters<typeof accountsCreate>[0]) => accountsCreate(options, ctx)));

  clientCommand(
    program
      .command('trigger')
      .description('start an alert now; prints its alertId')
      .argument('<alertType>', 'lowLeak, highLeak, awayLeak, ambientTemp, waterTemp or humidity'),
  )
    .requiredOption('--location <id>', 'the location')
    .option('--device <id>', "the device (default the location's first)")
    .option('--peak-value <n>', 'the peak value (flow in gpm for leaks)')
    .option('--peak-status <status>', 'too_high or too_low (temperature and humidity)')
    .action(run((alertType: string, options: Parameters<typeof trigger>[1]) => trigger(alertType, options, ctx)));

  clientCommand(program.command('end').description('end an alert').argument('<alertId>', 'the alert'))
    .requiredOption('--location <id>', 'its location')
    .action(run((alertId: string, options: Parameters<typeof end>[1]) => end(alertId, options, ctx)));

  const clockCommand = program.command('clock').description("the account's virtual clock: prints its now");
  clientCommand(clockCommand.command('show', { isDefault: true }).description('show the clock')).action(
    run((options: Parameters<typeof clock>[2]) => clock('show', undefined, options, ctx)),
  );
  clientCommand(
    clockCommand
      .command('advance')
      .description('move forward, running what falls due on the way')
      .argument('<duration>', 'seconds, or 90s, 15m, 1h30m, 2d'),
  )
    .option('--freeze', 'and leave the clock frozen')
    .action(run((duration: string, options: Parameters<typeof clock>[2]) => clock('advance', duration, options, ctx)));
  clientCommand(
    clockCommand
      .command('set')
      .description('go to an instant')
      .argument('<time>', 'ISO 8601 with a zone (2026-07-04T08:00:00Z), or epoch seconds'),
  )
    .option('--freeze', 'and freeze the clock there')
    .action(run((time: string, options: Parameters<typeof clock>[2]) => clock('set', time, options, ctx)));
  clientCommand(clockCommand.command('real').description('back to the wall clock: running, no offset')).action(
    run((options: Parameters<typeof clock>[2]) => clock('real', undefined, options, ctx)),
  );

  const scenario = program.command('scenario').description('scripted alert timelines');
  clientCommand(scenario.command('list').description('the scenarios of the sandbox')).action(
    run((options: Parameters<typeof scenarioList>[0]) => scenarioList(options, ctx)),
  );
  clientCommand(
    scenario
      .command('run')
      .description('run a scenario, printing each step until the run completes')
      .argument('<name>', 'the scenario (water-sandbox scenario list)'),
  )
    .requiredOption('--location <id>', 'the location to run it at')
    .option('--fast', "don't wait: move the account clock to each next step (the clock stays moved)")
    .option('--poll-ms <ms>', 'without --fast, how often to look at the run (default 1000)')
    .option('--detach', 'print the run id and return at once, leaving the run to play (otherwise Ctrl-C cancels it)')
    .action(run((name: string, options: Parameters<typeof scenarioRun>[1]) => scenarioRun(name, options, ctx, sleep)));
  clientCommand(
    scenario
      .command('cancel')
      .description('cancel a run: no later step of it fires; alerts it started stay')
      .argument('<runId>', 'the run (scenario run prints it)'),
  ).action(run((runId: string, options: Parameters<typeof scenarioCancel>[1]) => scenarioCancel(runId, options, ctx)));

  const readiness = clientCommand(
    program
      .command('readiness')
      .description(
        'whether the integration is ready for production: prints the checklist; exits 1 while a required check is failed or pending',
      )
      .option(
        '--junit <file>',
        'also write the report as JUnit XML (one test case per check; a required check failed or pending is a failure)',
      )
      .option(
        '--markdown <file>',
        'also append the report as a Markdown table to this file, e.g. "$GITHUB_STEP_SUMMARY"',
      )
      .addOption(
        new Option(
          '--annotate <level>',
          'also print a GitHub Actions annotation per required check failed or pending',
        ).choices(['error', 'warning']),
      )
      .option(
        '--wait <seconds>',
        'ask again while a required check is pending and something in flight could settle it, for at most this long (default 0)',
      )
      .option('--poll-ms <ms>', 'with --wait, how often to ask (default 2000)'),
  ).action(run((options: Parameters<typeof readinessReport>[0]) => readinessReport(options, ctx, sleep)));
  clientCommand(
    readiness.command('reset').description('open a new readiness window: earlier evidence no longer counts'),
  ).action(run((options: Parameters<typeof readinessReset>[0]) => readinessReset(options, ctx)));
  clientCommand(
    readiness
      .command('drill')
      .description('provoke a rare case for the integration to meet')
      .argument('<name>', 'expire-tokens, rate-limit, server-errors, duplicate-delivery or out-of-order'),
  ).action(run((name: string, options: Parameters<typeof readinessDrill>[1]) => readinessDrill(name, options, ctx)));

  clientCommand(
    program
      .command('listen')
      .description(
        "receive the sandbox's webhooks on this machine: forward each one sent to the relay endpoint to a local URL",
      ),
  )
    .requiredOption('--forward-to <url>', 'the local URL, e.g. http://localhost:3000/webhooks')
    .option(
      '--subscribe <locationId|all>',
      'subscribe these locations to the relay endpoint (repeatable or comma-separated), confirm, and delete the subscriptions on exit',
      collect,
      [],
    )
    .option(
      '--name <name>',
      "a relay of the account's own (default: default); two listeners of one account use two names",
    )
    .action(run((options: Parameters<typeof listen>[0]) => listen(options, ctx)));

  clientCommand(
    program
      .command('mcp')
      .description(
        "the sandbox's MCP tools for a coding agent, over stdio: configure the agent to run this command (docs/agents.md)",
      ),
    { json: false },
  ).action(run((options: Parameters<typeof mcp>[0]) => mcp(options, ctx)));

  // Errors are reported by runCli with exit 2; help and --version exit 0.
  program.exitOverride();
  for (const command of allCommands(program))
    command
      .exitOverride()
      .configureOutput({ writeOut: (text) => ctx.stdout(text), writeErr: (text) => ctx.stderr(text) });
  return program;
}

function describeUnknownOption({ option, command, suggestion }: UnknownOption): string {
  const path = [command, ...ancestorsOf(command)]
    .reverse()
    .slice(1)
    .map((c) => c.name())
    .join(' ');
  if (CLIENT_OPTIONS.some((o) => o.long === option) && path === 'serve') {
    return `error: unknown option '${option}' for serve (the default command): it goes with a command that talks to a running sandbox, e.g. water-sandbox clock ${option}${CLIENT_OPTIONS.find((o) => o.long === option)?.takesValue ? ' <value>' : ''}`;
  }
  return `error: unknown option '${option}'${path ? ` of water-sandbox ${path}` : ''}${suggestion ? ` (did you mean ${suggestion}?)` : ''}; water-sandbox ${path ? `${path} ` : ''}--help lists the options`;
}

function ancestorsOf(command: Command): Command[] {
  return command.parent ? [command.parent, ...ancestorsOf(command.parent)] : [];
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/**
 * Runs `water-sandbox <argv>` and resolves with the exit code: 0, 1 when the command failed,
 * 2 for a usage error (an unknown command or flag, a missing or bad value). With no command,
 * or flags only, it is `serve` (so `npm start -- --port 9000` works).
 */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  // `--api-key K clock` is `clock --api-key K`: the client options go where the command takes them.
  const given = moveLeadingOptions(argv, CLIENT_OPTIONS);
  const first = given[0];
  const args =
    first === undefined || (first.startsWith('-') && !['-h', '--help', '-V', '--version'].includes(first))
      ? ['serve', ...given]
      : given;
  let code = 0;
  const program = buildProgram(ctx, (c) => (code = c));
  // An unknown option first, before a required one is found missing: `--locaton` is the mistake to name.
  const unknown = findUnknownOption(program, args);
  if (unknown) {
    ctx.stderr(`${describeUnknownOption(unknown)}\n`);
    return 2;
  }
  try {
    await program.parseAsync(args, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof CliError) {
      ctx.stderr(`${error.message.startsWith('water-sandbox') ? '' : 'error: '}${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
