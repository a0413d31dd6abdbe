@tokens
Feature: Tokens for other users
  Someone granted MANAGE_ACCESS_TOKENS creates personal access tokens for other users. Such
  a token stands for the other user, its actor, and records the manager as its owner; used,
  it acts with the other user's privileges, never the manager's. Managers list and revoke
  tokens whoever owns them. Without MANAGE_ACCESS_TOKENS nobody creates a token for someone
  else.

  Background:
    Given Mia holds a personal access token
    And Mia is granted MANAGE_ACCESS_TOKENS
    And Bob is a user

  @smoke
  Scenario: A manager creates a token for another user
    When Mia creates a personal access token for Bob
    Then the new token is described with Bob as its actor and Mia as its owner
    And the new token acts as Bob

  @core
  Scenario: A token made by a manager has its user's privileges, not the manager's
    Given Mia is granted CREATE_TAGS
    And Mia has created a personal access token for Bob
    When Bob creates a tag with the new token
    Then Bob is rejected as unauthorized
    But Mia can create a tag

  @core
  Scenario: Someone without MANAGE_ACCESS_TOKENS cannot create a token for another user
    Given Ann holds a personal access token
    When Ann creates a personal access token for Bob
    Then Ann is rejected as unauthorized
    And no token was created for Bob

  @core
  Scenario: A manager lists tokens someone else owns
    Given Bob holds a personal access token
    And Bob is granted GENERATE_PERSONAL_ACCESS_TOKENS
    And Bob has created a personal access token for himself
    When Mia lists the tokens Bob owns
    Then the list includes the new token

  @core
  Scenario: A manager revokes a token someone else owns
    Given Bob holds a personal access token
    And Bob is granted GENERATE_PERSONAL_ACCESS_TOKENS
    And Bob has created a personal access token for himself
    And the new token acts as Bob
    When Mia revokes the new token
    Then the new token is refused
