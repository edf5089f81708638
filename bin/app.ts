import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { STACK_NAME } from '#contracts/stack-outputs';
import { MarketDataStack } from '#lib/market-data-stack';

const app = new App();
new MarketDataStack(app, STACK_NAME);
// cdk-nag 3 is a CDK policy-validation plugin (it replaced the v2 Aspect): any unacknowledged finding
// stops `cdk synth` and `cdk deploy` with a report.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
