/**
 * The first words of the task `bestof init` writes (./starter.ts): a spec whose prompt still holds
 * them was not finished, and `validate` and `run` say so (src/engine/plan/plan.ts) rather than send the
 * agents off with it. A module of its own, so that the planner does not load the starter's text.
 */
export const PROMPT_PLACEHOLDER = 'Describe the task here';
