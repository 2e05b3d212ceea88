declare module 'asl-validator' {
  interface AslValidationResult {
    isValid: boolean;
    errors: { message?: string }[];
    errorsText: (separator?: string) => string;
  }
  const validate: (definition: unknown, options?: { checkPaths?: boolean; checkArn?: boolean }) => AslValidationResult;
  export default validate;
}
