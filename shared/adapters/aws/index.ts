export * from './ec2';
export * from './eks';
export * from './sfn';
export * from './state-store';
export { mapAwsError, awsErrorCode, IceErrorCodes, ThrottleErrorCodes, UnauthorizedErrorCodes, NotFoundErrorCodes, LaunchTemplateNotFoundCodes } from './errors';
